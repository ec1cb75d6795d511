// A one-button form that posts an intent (and the row's id): the Delete, Remove, Detach ... cell of
// an admin table. A real <form>, so it works without JavaScript.
import type { ReactNode } from "react";
import { Form } from "@remix-run/react";

export function IntentButton(props: {
  intent: string;
  /** the row it acts on, posted as `id` */
  id?: string | number;
  /** the button's accessible name, naming the row ("Delete +60312345678") */
  label: string;
  className?: string;
  disabled?: boolean;
  action?: string;
  children: ReactNode;
}) {
  return (
    <Form method="post" action={props.action}>
      <input type="hidden" name="intent" value={props.intent} />
      {props.id === undefined ? null : <input type="hidden" name="id" value={props.id} />}
      <button type="submit" className={props.className ?? "button"} disabled={props.disabled} aria-label={props.label}>
        {props.children}
      </button>
    </Form>
  );
}
