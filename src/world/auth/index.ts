export { BadPatternError, pathMatch } from './path-match.ts';
export { matchPath, matchesAnyPath, PatternError, validatePattern } from './path-pattern.ts';
export { parseRfc3339 } from '../../protocol/time.ts';
export { parseTokensFile, TokensFileError, type TokenEntry } from './tokens-file.ts';
export {
  authorizeRead,
  isUnauthenticated,
  publishOperation,
  readOperation,
  TokenSnapshot,
  type AuthDenial,
  type AuthOutcome,
} from './token-snapshot.ts';
export { TokenSource, type TokenSourceOptions } from './token-source.ts';
export { mintTokenEntry, type MintedToken, type MintRequest } from './mint-token.ts';
