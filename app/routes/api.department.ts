// GET /department/{userId} ?_token -> the departments, marking the one of that user.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { listDepartmentChoices } from "~/conversation/choices.server";
import { findUserById } from "~/accounts/users.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiUser(request);
  const [departments, user] = await Promise.all([listDepartmentChoices(), findUserById(Number(params.userId))]);
  if (!user) return json({ result: "failed", description: "User not found." }, { status: 404 });
  return json({ result: "success", data: departments.map((d) => ({ ...d, selected: d.id === user.departmentId })) });
}
