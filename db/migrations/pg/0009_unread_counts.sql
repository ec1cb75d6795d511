CREATE TABLE "unread_counts" (
	"user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"unread" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "unread_counts_user_id_kind_pk" PRIMARY KEY("user_id","kind")
);
--> statement-breakpoint
ALTER TABLE "unread_counts" ADD CONSTRAINT "unread_counts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Triggers keep the counts exact on every path that changes participants: new participants,
-- activity and reads, removals, cascades from deleted tickets or users, and a live chat
-- converted to a ticket (its kind changes).
CREATE FUNCTION "participants_unread_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD."unread" THEN
		UPDATE "unread_counts" SET "unread" = "unread" - 1 WHERE "user_id" = OLD."user_id" AND "kind" = OLD."kind";
	END IF;
	IF TG_OP <> 'DELETE' AND NEW."unread" THEN
		INSERT INTO "unread_counts" ("user_id", "kind", "unread") VALUES (NEW."user_id", NEW."kind", 1)
			ON CONFLICT ("user_id", "kind") DO UPDATE SET "unread" = "unread_counts"."unread" + 1;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "participants_unread_insert_delete" AFTER INSERT OR DELETE ON "participants"
	FOR EACH ROW EXECUTE FUNCTION "participants_unread_counts"();
--> statement-breakpoint
CREATE TRIGGER "participants_unread_update" AFTER UPDATE OF "unread", "kind", "user_id" ON "participants"
	FOR EACH ROW WHEN (OLD."unread" IS DISTINCT FROM NEW."unread" OR OLD."kind" IS DISTINCT FROM NEW."kind" OR OLD."user_id" IS DISTINCT FROM NEW."user_id")
	EXECUTE FUNCTION "participants_unread_counts"();
--> statement-breakpoint
INSERT INTO "unread_counts" ("user_id", "kind", "unread")
	SELECT "user_id", "kind", count(*) FROM "participants" WHERE "unread" GROUP BY "user_id", "kind";
