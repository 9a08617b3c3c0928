CREATE TABLE "bounce_count_increments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer,
	"rule_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bounce_receipts" (
	"message_id" text PRIMARY KEY NOT NULL,
	"bounce_id" bigint NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_audience_sources" (
	"campaign_id" integer NOT NULL,
	"list_id" integer NOT NULL,
	"frozen_through_subscriber_id" integer DEFAULT 0 NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"frozen_at" timestamp with time zone,
	CONSTRAINT "campaign_audience_sources_campaign_id_list_id_pk" PRIMARY KEY("campaign_id","list_id")
);
--> statement-breakpoint
CREATE TABLE "campaign_send_states" (
	"campaign_id" integer PRIMARY KEY NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"paused_reason" text,
	"paused_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_hourly_events" (
	"campaign_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"opens" bigint DEFAULT 0 NOT NULL,
	"human_opens" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"human_clicks" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_hourly_events_campaign_id_hour_pk" PRIMARY KEY("campaign_id","hour")
);
--> statement-breakpoint
CREATE TABLE "link_clickers" (
	"link_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"first_clicked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "link_clickers_link_id_subscriber_id_pk" PRIMARY KEY("link_id","subscriber_id")
);
--> statement-breakpoint
ALTER TABLE "subscriber_attribute_values" DROP CONSTRAINT "subscriber_attribute_values_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "subscriber_attribute_values" DROP CONSTRAINT "subscriber_attribute_values_definition_id_attribute_definitions_id_fk";
--> statement-breakpoint
ALTER TABLE "subscriber_history" DROP CONSTRAINT "subscriber_history_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_list_id_lists_id_fk";
--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_campaign_id_campaigns_id_fk";
--> statement-breakpoint
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "clicks" DROP CONSTRAINT "clicks_link_id_links_id_fk";
--> statement-breakpoint
ALTER TABLE "clicks" DROP CONSTRAINT "clicks_campaign_id_campaigns_id_fk";
--> statement-breakpoint
ALTER TABLE "clicks" DROP CONSTRAINT "clicks_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "opens" DROP CONSTRAINT "opens_campaign_id_campaigns_id_fk";
--> statement-breakpoint
ALTER TABLE "opens" DROP CONSTRAINT "opens_subscriber_id_subscribers_id_fk";
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "first_human_opened_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaign_audience_sources" ADD CONSTRAINT "campaign_audience_sources_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_audience_sources" ADD CONSTRAINT "campaign_audience_sources_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_send_states" ADD CONSTRAINT "campaign_send_states_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_hourly_events" ADD CONSTRAINT "campaign_hourly_events_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_clickers" ADD CONSTRAINT "link_clickers_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_clickers" ADD CONSTRAINT "link_clickers_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_audience_sources_pending_idx" ON "campaign_audience_sources" USING btree ("campaign_id") WHERE "campaign_audience_sources"."frozen_at" is null;--> statement-breakpoint
CREATE INDEX "campaign_hourly_events_hour_idx" ON "campaign_hourly_events" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "link_clickers_subscriber_id_idx" ON "link_clickers" USING btree ("subscriber_id");--> statement-breakpoint
CREATE INDEX "bounces_delivery_id_idx" ON "bounces" USING btree ("delivery_id") WHERE "bounces"."delivery_id" is not null;--> statement-breakpoint
CREATE INDEX "deliveries_message_id_idx" ON "deliveries" USING btree ("message_id") WHERE "deliveries"."message_id" is not null;--> statement-breakpoint
CREATE INDEX "clicks_link_id_idx" ON "clicks" USING btree ("link_id");