CREATE TABLE "campaign_domain_snapshots" (
	"campaign_id" integer PRIMARY KEY NOT NULL,
	"computed_at" timestamp with time zone,
	"refreshing_since" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "campaign_domain_stats" (
	"campaign_id" integer NOT NULL,
	"domain" text NOT NULL,
	"recipients" bigint NOT NULL,
	"sent" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"opened" bigint NOT NULL,
	"clicked" bigint NOT NULL,
	"bounced" bigint NOT NULL,
	CONSTRAINT "campaign_domain_stats_campaign_id_domain_pk" PRIMARY KEY("campaign_id","domain")
);
--> statement-breakpoint
ALTER TABLE "campaign_domain_snapshots" ADD CONSTRAINT "campaign_domain_snapshots_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_domain_stats" ADD CONSTRAINT "campaign_domain_stats_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_domain_stats_order_idx" ON "campaign_domain_stats" USING btree ("campaign_id","recipients" DESC NULLS LAST,"domain");