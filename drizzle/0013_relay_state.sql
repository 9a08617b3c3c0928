ALTER TABLE "campaign_send_states" ADD COLUMN "relay_error" text;--> statement-breakpoint
ALTER TABLE "campaign_send_states" ADD COLUMN "relay_down_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaign_send_states" ADD COLUMN "relay_retry_at" timestamp with time zone;