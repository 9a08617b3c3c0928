DROP INDEX "bounces_campaign_id_idx";--> statement-breakpoint
CREATE INDEX "bounces_campaign_id_idx" ON "bounces" USING btree ("campaign_id","id");