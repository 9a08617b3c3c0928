CREATE TABLE "subscriber_domain_counts" (
	"domain" text NOT NULL,
	"shard" integer NOT NULL,
	"confirmed" bigint DEFAULT 0 NOT NULL,
	"unconfirmed" bigint DEFAULT 0 NOT NULL,
	"blacklisted" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "subscriber_domain_counts_domain_shard_pk" PRIMARY KEY("domain","shard")
);
--> statement-breakpoint
CREATE TABLE "subscriber_local_part_counts" (
	"local_part" text PRIMARY KEY NOT NULL,
	"subscribers" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "subscriber_local_part_counts_top_idx" ON "subscriber_local_part_counts" USING btree ("subscribers" DESC NULLS LAST,"local_part");