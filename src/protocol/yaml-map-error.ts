import { errorWithCode } from '../errors/coded-error.ts';

/** A metadata block that is not a YAML map of strings (request.ts answers it `bad-request`). */
export class YamlMapError extends errorWithCode('ERR_YAML_NOT_A_STRING_MAP') {}

// The line screen (yaml-map-entries.ts) and the parser (yaml-map.ts) refuse a block in the same words.
export const notAMap = () => new YamlMapError('metadata block is not a map');
export const keyNotAString = () => new YamlMapError('metadata keys must be strings');
export const valueNotAString = (key: string) => new YamlMapError(`metadata value for "${key}" is not a string`);
