CREATE TABLE "login_known_clients" (
	"administrator_id" integer NOT NULL,
	"client_ip" text NOT NULL,
	"last_success_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_known_clients_administrator_id_client_ip_pk" PRIMARY KEY("administrator_id","client_ip")
);
--> statement-breakpoint
ALTER TABLE "login_failures" ADD COLUMN "from_known_client" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "login_known_clients" ADD CONSTRAINT "login_known_clients_administrator_id_administrators_id_fk" FOREIGN KEY ("administrator_id") REFERENCES "public"."administrators"("id") ON DELETE cascade ON UPDATE no action;