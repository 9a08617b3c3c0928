CREATE TABLE "subscriber_daily_counts" (
	"day" date NOT NULL,
	"shard" integer NOT NULL,
	"subscribers" bigint DEFAULT 0 NOT NULL,
	"confirmed" bigint DEFAULT 0 NOT NULL,
	"blacklisted" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "subscriber_daily_counts_day_shard_pk" PRIMARY KEY("day","shard")
);
--> statement-breakpoint
CREATE INDEX "subscribers_sendable_text_only_idx" ON "subscribers" USING btree ("id") WHERE confirmed and not blacklisted and not disabled and not html_email;--> statement-breakpoint
-- Issue 24: the subscribers already there, per UTC day of creation; routine 013's triggers keep the table from here.
INSERT INTO "subscriber_daily_counts" ("day", "shard", "subscribers", "confirmed", "blacklisted")
SELECT ("created_at" AT TIME ZONE 'utc')::date, 0, count(*), count(*) FILTER (WHERE "confirmed"), count(*) FILTER (WHERE "blacklisted")
FROM "subscribers" GROUP BY 1;
