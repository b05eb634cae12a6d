// What a key's name may be, checked in the forms before anything is sent, in the words a person reads
// (the admin API checks the same: 1 to 100 characters once trimmed, src-main/admin/key-routes.ts).

export const KEY_NAME_MAX_LENGTH = 100;

/** Why this name cannot be saved, or null when it can. */
export function keyNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return 'Give the key a name you will recognise';
  if (trimmed.length > KEY_NAME_MAX_LENGTH) return `A key’s name is at most ${KEY_NAME_MAX_LENGTH} characters; this one has ${trimmed.length}. Shorten it.`;
  return null;
}
