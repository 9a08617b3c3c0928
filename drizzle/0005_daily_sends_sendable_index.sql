CREATE TABLE "campaign_daily_sends" (
	"campaign_id" integer NOT NULL,
	"day" date NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_daily_sends_campaign_id_day_pk" PRIMARY KEY("campaign_id","day")
);
--> statement-breakpoint
ALTER TABLE "campaign_daily_sends" ADD CONSTRAINT "campaign_daily_sends_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_daily_sends_day_idx" ON "campaign_daily_sends" USING btree ("day");--> statement-breakpoint
CREATE INDEX "subscribers_sendable_idx" ON "subscribers" USING btree ("id") WHERE confirmed and not blacklisted and not disabled;