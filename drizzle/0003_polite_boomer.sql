CREATE TABLE "attachment_chunks" (
	"content_hash" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_chunks_content_hash_seq_pk" PRIMARY KEY("content_hash","seq")
);
