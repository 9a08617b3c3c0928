CREATE TABLE "subscriber_engagement" (
	"subscriber_id" integer PRIMARY KEY NOT NULL,
	"last_sent_at" timestamp with time zone,
	"last_opened_at" timestamp with time zone,
	"last_clicked_at" timestamp with time zone
);
--> statement-breakpoint
-- What the triggers of routines/055_subscriber_engagement.sql keep from now on, for the records already there
-- (before the index, which is then built once).
INSERT INTO "subscriber_engagement" ("subscriber_id", "last_sent_at", "last_opened_at", "last_clicked_at")
SELECT "subscriber_id", max("sent_at"), max("first_human_opened_at"), max("first_clicked_at")
FROM "deliveries"
WHERE "sent_at" IS NOT NULL OR "first_human_opened_at" IS NOT NULL OR "first_clicked_at" IS NOT NULL
GROUP BY "subscriber_id";--> statement-breakpoint
CREATE INDEX "subscriber_engagement_times_idx" ON "subscriber_engagement" USING btree ("subscriber_id","last_opened_at","last_clicked_at","last_sent_at");--> statement-breakpoint
CREATE INDEX "subscriber_attribute_values_segment_idx" ON "subscriber_attribute_values" USING btree ("definition_id","value","subscriber_id") WHERE char_length("subscriber_attribute_values"."value") <= 64;