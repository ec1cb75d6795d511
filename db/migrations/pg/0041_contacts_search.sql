CREATE TABLE "product_pending_images" (
	"file_key" text PRIMARY KEY NOT NULL,
	"user_id" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "product_pending_images_created_idx" ON "product_pending_images" USING btree ("created_at");
--> statement-breakpoint
-- The contacts list's search (plugins/contacts/search.server.ts): one text per contact (its name,
-- emails and phones on lines of their own: a search holds no line break, so it never spans two)
-- in contact_search, with a pg_trgm GIN index for ILIKE '%term%' of 3+ characters and the
-- character-pair index of 0014_search (search_bigrams) for 2 characters outside ASCII, so a word
-- inside a name ("Rahman" in "Zulkifli Rahman"), an email or a phone is found without reading
-- every contact. Triggers keep it in the writer's transaction.
CREATE TABLE "contact_search" (
	"contact_id" integer PRIMARY KEY NOT NULL REFERENCES "contacts"("id") ON DELETE CASCADE,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "contact_search_body_trgm_idx" ON "contact_search" USING gin ("body" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contact_search_body_bigram_idx" ON "contact_search" USING gin (search_bigrams("body"));
--> statement-breakpoint
-- statement-level triggers with transition tables: a batch (a CSV import, a merge) writes each
-- contact it touches once, in one statement
CREATE OR REPLACE FUNCTION contact_search_write(contact_ids integer[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO contact_search (contact_id, body)
	SELECT c.id, c.name || E'\n'
		|| coalesce((SELECT string_agg(value, E'\n') FROM contact_identities WHERE contact_id = c.id AND kind = 'email'), '') || E'\n'
		|| coalesce((SELECT string_agg(value, E'\n') FROM contact_identities WHERE contact_id = c.id AND kind = 'phone'), '')
	FROM contacts c WHERE c.id = ANY(contact_ids)
	ON CONFLICT (contact_id) DO UPDATE SET body = EXCLUDED.body WHERE contact_search.body IS DISTINCT FROM EXCLUDED.body
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contacts_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contact_search_write(ARRAY(SELECT id FROM added));
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contacts_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contact_search_write(ARRAY(SELECT n.id FROM changed n JOIN previous o ON o.id = n.id WHERE n.name IS DISTINCT FROM o.name));
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_identities_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contact_search_write(ARRAY(SELECT DISTINCT contact_id FROM added WHERE kind IN ('email', 'phone')));
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_identities_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contact_search_write(ARRAY(SELECT DISTINCT contact_id FROM removed WHERE kind IN ('email', 'phone')));
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_identities_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contact_search_write(ARRAY(
		SELECT contact_id FROM previous WHERE kind IN ('email', 'phone') UNION SELECT contact_id FROM changed WHERE kind IN ('email', 'phone')));
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "contacts_search_insert" AFTER INSERT ON "contacts" REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION contacts_search_inserted();
--> statement-breakpoint
CREATE TRIGGER "contacts_search_update" AFTER UPDATE ON "contacts" REFERENCING OLD TABLE AS previous NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_search_updated();
--> statement-breakpoint
CREATE TRIGGER "contact_identities_search_insert" AFTER INSERT ON "contact_identities" REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION contact_identities_search_inserted();
--> statement-breakpoint
CREATE TRIGGER "contact_identities_search_delete" AFTER DELETE ON "contact_identities" REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION contact_identities_search_deleted();
--> statement-breakpoint
CREATE TRIGGER "contact_identities_search_update" AFTER UPDATE ON "contact_identities" REFERENCING OLD TABLE AS previous NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contact_identities_search_updated();
--> statement-breakpoint
INSERT INTO contact_search (contact_id, body)
SELECT c.id, c.name || E'\n'
	|| coalesce((SELECT string_agg(value, E'\n') FROM contact_identities WHERE contact_id = c.id AND kind = 'email'), '') || E'\n'
	|| coalesce((SELECT string_agg(value, E'\n') FROM contact_identities WHERE contact_id = c.id AND kind = 'phone'), '')
FROM contacts c;
