/** Which rewind options the picker offers. Pure. */
import type { RewindOption } from "../protocol";

export interface RewindChoice {
  option: RewindOption | "cancel";
  label: string;
  detail: string;
}

export function rewindChoices(hostLabels: string[]): RewindChoice[] {
  const choices: RewindChoice[] = [
    { option: "code", label: "$(history) Restore code", detail: "Put every file the agent touched back as it was at the start of this turn." },
  ];
  if (hostLabels.length > 0) {
    const hosts = hostLabels.join(", ");
    choices.push(
      { option: "both", label: "$(comment-discussion) Restore code and conversation", detail: `Restore files, and rewind the conversation in ${hosts}.` },
      { option: "conversation", label: "$(comment) Rewind conversation only", detail: `Keep files as they are; rewind the conversation in ${hosts}.` },
    );
  }
  choices.push({ option: "cancel", label: "Cancel", detail: "" });
  return choices;
}
