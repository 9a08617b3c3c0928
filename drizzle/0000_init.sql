CREATE TABLE "admin_attribute_definitions" (
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
CREATE TABLE "admin_attribute_values" (
	"administrator_id" integer NOT NULL,
	"definition_id" integer NOT NULL,
	"value" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "admin_attribute_values_administrator_id_definition_id_pk" PRIMARY KEY("administrator_id","definition_id")
);
--> statement-breakpoint
CREATE TABLE "administrators" (
	"id" serial PRIMARY KEY NOT NULL,
	"login_name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"super_user" boolean DEFAULT false NOT NULL,
	"priv_subscribers" boolean DEFAULT false NOT NULL,
	"priv_campaigns" boolean DEFAULT false NOT NULL,
	"priv_statistics" boolean DEFAULT false NOT NULL,
	"priv_settings" boolean DEFAULT false NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"password_changed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"login_name" text NOT NULL,
	"client_ip" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_reset_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"administrator_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"request_count" integer DEFAULT 1 NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"administrator_id" integer NOT NULL,
	"key_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blacklist" (
	"id" serial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"reason" text,
	"added_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lists" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"list_position" integer,
	"subject_prefix" text,
	"public" boolean DEFAULT true NOT NULL,
	"category" text DEFAULT '' NOT NULL,
	"rss_feed" text,
	"owner_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriber_history" (
	"id" serial PRIMARY KEY NOT NULL,
	"subscriber_id" integer NOT NULL,
	"ip" text,
	"summary" text,
	"detail" text,
	"system_info" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscribers" (
	"id" serial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"unique_id" text NOT NULL,
	"confirmed" boolean DEFAULT false NOT NULL,
	"blacklisted" boolean DEFAULT false NOT NULL,
	"bounce_count" integer DEFAULT 0 NOT NULL,
	"html_email" boolean DEFAULT true NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"extra_data" text,
	"foreign_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"list_id" integer NOT NULL,
	"subscriber_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscriptions_list_id_subscriber_id_pk" PRIMARY KEY("list_id","subscriber_id")
);
--> statement-breakpoint
ALTER TABLE "admin_attribute_values" ADD CONSTRAINT "admin_attribute_values_administrator_id_administrators_id_fk" FOREIGN KEY ("administrator_id") REFERENCES "public"."administrators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admin_attribute_values" ADD CONSTRAINT "admin_attribute_values_definition_id_admin_attribute_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."admin_attribute_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_administrator_id_administrators_id_fk" FOREIGN KEY ("administrator_id") REFERENCES "public"."administrators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_administrator_id_administrators_id_fk" FOREIGN KEY ("administrator_id") REFERENCES "public"."administrators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blacklist" ADD CONSTRAINT "blacklist_added_by_administrators_id_fk" FOREIGN KEY ("added_by") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_owner_id_administrators_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."administrators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriber_history" ADD CONSTRAINT "subscriber_history_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admin_attribute_definitions_name_key" ON "admin_attribute_definitions" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "administrators_login_name_key" ON "administrators" USING btree (lower("login_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "administrators_email_key" ON "administrators" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "login_failures_login_name_idx" ON "login_failures" USING btree (lower("login_name"),"created_at");--> statement-breakpoint
CREATE INDEX "login_failures_client_ip_idx" ON "login_failures" USING btree ("client_ip","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "password_reset_tokens_token_hash_key" ON "password_reset_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "password_reset_tokens_administrator_id_idx" ON "password_reset_tokens" USING btree ("administrator_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_key_hash_key" ON "sessions" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "sessions_administrator_id_idx" ON "sessions" USING btree ("administrator_id");--> statement-breakpoint
CREATE UNIQUE INDEX "blacklist_email_key" ON "blacklist" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "lists_owner_id_idx" ON "lists" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "subscriber_history_subscriber_id_id_idx" ON "subscriber_history" USING btree ("subscriber_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscribers_email_key" ON "subscribers" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "subscribers_unique_id_key" ON "subscribers" USING btree ("unique_id");--> statement-breakpoint
CREATE INDEX "subscriptions_subscriber_id_idx" ON "subscriptions" USING btree ("subscriber_id");