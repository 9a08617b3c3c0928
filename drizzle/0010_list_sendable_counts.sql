CREATE TABLE "list_sendable_counts" (
	"list_id" integer NOT NULL,
	"shard" integer NOT NULL,
	"members" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "list_sendable_counts_list_id_shard_pk" PRIMARY KEY("list_id","shard")
);
--> statement-breakpoint
ALTER TABLE "list_sendable_counts" ADD CONSTRAINT "list_sendable_counts_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;