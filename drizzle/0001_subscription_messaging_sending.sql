CREATE TABLE "attribute_definitions" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"type" text,
	"list_order" integer,
	"default_value" text,
	"required" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attribute_options" (
	"id" serial PRIMARY KEY NOT NULL,
	"definition_id" integer NOT NULL,
	"name" text NOT NULL,
	"list_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "list_member_counts" (
	"list_id" integer NOT NULL,
	"shard" integer NOT NULL,
	"members" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "list_member_counts_list_id_shard_pk" PRIMARY KEY("list_id","shard")
);
--> statement-breakpoint
CREATE TABLE "subscribe_page_data" (
	"page_id" integer NOT NULL,
	"name" text NOT NULL,
	"data" text,
	CONSTRAINT "subscribe_page_data_page_id_name_pk" PRIMARY KEY("page_id","name")
);
--> statement-breakpoint
CREATE TABLE "subscribe_pages" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"owner_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriber_attribute_values" (
	"subscriber_id" integer NOT NULL,
	"definition_id" integer NOT NULL,
	"value" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscriber_attribute_values_subscriber_id_definition_id_pk" PRIMARY KEY("subscriber_id","definition_id")
);
--> statement-breakpoint
CREATE TABLE "subscriber_counts" (
	"shard" integer PRIMARY KEY NOT NULL,
	"subscribers" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attachments" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"filename" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint NOT NULL,
	"description" text,
	"content_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bounce_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"regex" text NOT NULL,
	"regex_hash" text NOT NULL,
	"action" text NOT NULL,
	"list_order" integer DEFAULT 0 NOT NULL,
	"admin_id" integer,
	"comment" text,
	"status" text DEFAULT 'active' NOT NULL,
	"match_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bounces" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text,
	"kind" text,
	"comment" text,
	"header" text,
	"data" text,
	"campaign_id" integer,
	"subscriber_id" integer,
	"delivery_id" bigint,
	"message_id" text
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"unique_id" text NOT NULL,
	"owner_id" integer,
	"template_id" integer,
	"subject" text DEFAULT '(no subject)' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"text_body" text DEFAULT '' NOT NULL,
	"footer" text DEFAULT '' NOT NULL,
	"send_format" text DEFAULT 'html' NOT NULL,
	"html_formatted" boolean DEFAULT true NOT NULL,
	"as_text" integer DEFAULT 0 NOT NULL,
	"as_html" integer DEFAULT 0 NOT NULL,
	"as_text_and_html" integer DEFAULT 0 NOT NULL,
	"as_pdf" integer DEFAULT 0 NOT NULL,
	"as_text_and_pdf" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"bounce_count" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	"send_start" timestamp with time zone,
	"embargo" timestamp with time zone DEFAULT now() NOT NULL,
	"repeat_interval" integer DEFAULT 0 NOT NULL,
	"repeat_until" timestamp with time zone,
	"requeue_interval" integer DEFAULT 0 NOT NULL,
	"requeue_until" timestamp with time zone,
	"from_field" text DEFAULT '' NOT NULL,
	"to_field" text DEFAULT '' NOT NULL,
	"reply_to" text DEFAULT '' NOT NULL,
	"user_selection" text,
	"click_track" boolean DEFAULT true NOT NULL,
	"audience_frozen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "list_campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"list_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "template_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"template_id" integer,
	"mime_type" text,
	"filename" text,
	"data" "bytea",
	"width" integer,
	"height" integer
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"content" text,
	"text" text,
	"file" "bytea",
	"list_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_response" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"worker_id" text,
	"format" text,
	"message_id" text,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"first_opened_at" timestamp with time zone,
	"first_clicked_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forwards" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"email" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"url" text NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"unique_clicks" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "send_rate_windows" (
	"key" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "send_rate_windows_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "campaign_counters" (
	"campaign_id" integer PRIMARY KEY NOT NULL,
	"queued" bigint DEFAULT 0 NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"skipped" bigint DEFAULT 0 NOT NULL,
	"opens" bigint DEFAULT 0 NOT NULL,
	"unique_opens" bigint DEFAULT 0 NOT NULL,
	"human_opens" bigint DEFAULT 0 NOT NULL,
	"unique_human_opens" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"unique_clicks" bigint DEFAULT 0 NOT NULL,
	"human_clicks" bigint DEFAULT 0 NOT NULL,
	"bounces" bigint DEFAULT 0 NOT NULL,
	"forwards" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "clicks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"link_id" integer NOT NULL,
	"campaign_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"clicked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ip" text,
	"user_agent" text,
	"referer" text,
	"machine" boolean DEFAULT false NOT NULL,
	"machine_reason" text
);
--> statement-breakpoint
CREATE TABLE "opens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ip" text,
	"user_agent" text,
	"referer" text,
	"machine" boolean DEFAULT false NOT NULL,
	"machine_reason" text
);
--> statement-breakpoint
CREATE TABLE "installation_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attribute_options" ADD CONSTRAINT "attribute_options_definition_id_attribute_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."attribute_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_member_counts" ADD CONSTRAINT "list_member_counts_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscribe_page_data" ADD CONSTRAINT "subscribe_page_data_page_id_subscribe_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."subscribe_pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscribe_pages" ADD CONSTRAINT "subscribe_pages_owner_id_administrators_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriber_attribute_values" ADD CONSTRAINT "subscriber_attribute_values_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriber_attribute_values" ADD CONSTRAINT "subscriber_attribute_values_definition_id_attribute_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."attribute_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bounce_rules" ADD CONSTRAINT "bounce_rules_admin_id_administrators_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bounces" ADD CONSTRAINT "bounces_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bounces" ADD CONSTRAINT "bounces_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_owner_id_administrators_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_campaigns" ADD CONSTRAINT "list_campaigns_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_campaigns" ADD CONSTRAINT "list_campaigns_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "template_images" ADD CONSTRAINT "template_images_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forwards" ADD CONSTRAINT "forwards_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forwards" ADD CONSTRAINT "forwards_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_counters" ADD CONSTRAINT "campaign_counters_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opens" ADD CONSTRAINT "opens_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opens" ADD CONSTRAINT "opens_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "attribute_definitions_name_key" ON "attribute_definitions" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "attribute_options_definition_name_key" ON "attribute_options" USING btree ("definition_id",lower("name"));--> statement-breakpoint
CREATE INDEX "subscribe_pages_owner_id_idx" ON "subscribe_pages" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "subscriber_attribute_values_definition_id_idx" ON "subscriber_attribute_values" USING btree ("definition_id");--> statement-breakpoint
CREATE INDEX "attachments_campaign_id_idx" ON "attachments" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "attachments_content_hash_idx" ON "attachments" USING btree ("content_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "bounce_rules_regex_hash_key" ON "bounce_rules" USING btree ("regex_hash");--> statement-breakpoint
CREATE INDEX "bounces_campaign_id_idx" ON "bounces" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "bounces_subscriber_id_idx" ON "bounces" USING btree ("subscriber_id","id");--> statement-breakpoint
CREATE INDEX "bounces_status_idx" ON "bounces" USING btree ("status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "bounces_message_id_key" ON "bounces" USING btree ("message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_unique_id_key" ON "campaigns" USING btree ("unique_id");--> statement-breakpoint
CREATE INDEX "campaigns_owner_id_idx" ON "campaigns" USING btree ("owner_id","id");--> statement-breakpoint
CREATE INDEX "campaigns_status_embargo_idx" ON "campaigns" USING btree ("status","embargo");--> statement-breakpoint
CREATE UNIQUE INDEX "list_campaigns_campaign_list_key" ON "list_campaigns" USING btree ("campaign_id","list_id");--> statement-breakpoint
CREATE INDEX "list_campaigns_list_id_idx" ON "list_campaigns" USING btree ("list_id");--> statement-breakpoint
CREATE INDEX "template_images_template_id_idx" ON "template_images" USING btree ("template_id");--> statement-breakpoint
CREATE UNIQUE INDEX "templates_title_key" ON "templates" USING btree (lower("title"));--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_campaign_subscriber_key" ON "deliveries" USING btree ("campaign_id","subscriber_id");--> statement-breakpoint
CREATE INDEX "deliveries_campaign_status_id_idx" ON "deliveries" USING btree ("campaign_id","status","id");--> statement-breakpoint
CREATE INDEX "deliveries_subscriber_id_idx" ON "deliveries" USING btree ("subscriber_id","id");--> statement-breakpoint
CREATE INDEX "forwards_subscriber_created_idx" ON "forwards" USING btree ("subscriber_id","created_at");--> statement-breakpoint
CREATE INDEX "forwards_campaign_email_idx" ON "forwards" USING btree ("campaign_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "links_campaign_url_key" ON "links" USING btree ("campaign_id",md5("url"));--> statement-breakpoint
CREATE INDEX "clicks_campaign_id_idx" ON "clicks" USING btree ("campaign_id","clicked_at");--> statement-breakpoint
CREATE INDEX "clicks_subscriber_id_idx" ON "clicks" USING btree ("subscriber_id");--> statement-breakpoint
CREATE INDEX "opens_campaign_id_idx" ON "opens" USING btree ("campaign_id","opened_at");--> statement-breakpoint
CREATE INDEX "opens_subscriber_id_idx" ON "opens" USING btree ("subscriber_id");--> statement-breakpoint
CREATE INDEX "subscribers_foreign_key_idx" ON "subscribers" USING btree ("foreign_key") WHERE "subscribers"."foreign_key" is not null;