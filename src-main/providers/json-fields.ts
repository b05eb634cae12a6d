// Fields of provider JSON as Gatehouse reads them through zod: a field of another type is read as absent,
// so a body not quite in the documented shape still gives what it has, and the reader's default the rest.
import { z } from 'zod';

export const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

export const optionalText = optional(z.string());
