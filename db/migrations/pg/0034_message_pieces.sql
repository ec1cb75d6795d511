CREATE TABLE "channel_message_pieces" (
	"message_id" integer NOT NULL,
	"piece" integer NOT NULL,
	"provider_message_id" text NOT NULL,
	CONSTRAINT "channel_message_pieces_message_id_piece_pk" PRIMARY KEY("message_id","piece")
);
--> statement-breakpoint
ALTER TABLE "channel_message_pieces" ADD CONSTRAINT "channel_message_pieces_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;