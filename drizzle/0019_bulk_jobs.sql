CREATE TABLE "bulk_jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"list_id" integer,
	"reason" text,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"affected" integer DEFAULT 0 NOT NULL,
	"error" text,
	"admin_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "bulk_jobs" ADD CONSTRAINT "bulk_jobs_admin_id_administrators_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;