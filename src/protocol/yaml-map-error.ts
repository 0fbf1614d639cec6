import { errorWithCode } from '../errors/coded-error.ts';

/** A metadata block that is not a YAML map of strings (request.ts answers it `bad-request`). */
export class YamlMapError extends errorWithCode('ERR_YAML_NOT_A_STRING_MAP') {}
