CREATE TABLE "analytics_snapshots" (
	"name" text PRIMARY KEY NOT NULL,
	"computed_at" timestamp with time zone,
	"refreshing_since" timestamp with time zone,
	"dirty" boolean DEFAULT true NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"refresh_ms" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Issue 24: the local parts become a snapshot of the top ones (tracking/local-parts.service.ts); the row per
-- distinct local part kept by triggers until now goes, and the first request computes the snapshot.
TRUNCATE "subscriber_local_part_counts";--> statement-breakpoint
INSERT INTO "analytics_snapshots" ("name") VALUES ('local_parts');
