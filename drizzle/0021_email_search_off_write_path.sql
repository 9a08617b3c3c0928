CREATE TABLE "subscriber_email_search" (
	"subscriber_id" integer PRIMARY KEY NOT NULL,
	"email" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriber_email_search_pending" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"lo" integer NOT NULL,
	"hi" integer NOT NULL
);
--> statement-breakpoint
-- Issue 24: the trigram index moves from subscribers to subscriber_email_search (routine 050). The addresses already
-- there go into the copy through the background fold (subscription/email-search.ts), as one range; searches read that
-- range directly until it is folded.
INSERT INTO "subscriber_email_search_pending" ("lo", "hi") SELECT min("id"), max("id") FROM "subscribers" HAVING count(*) > 0;
