/**
 * The bound on the durable records of registered clients, and which records
 * go when a new one would pass it.
 *
 * On Kubernetes every record is one key of the one Secret
 * `demarkus-broker-state-registered-clients`, and the API server refuses a
 * Secret whose data passes 1 MiB (422 Invalid). A record holds up to 4 KiB of
 * metadata (`maxRegistrationBytes`), so without a bound about 240 clients fill
 * the Secret, after which no new client can finish its first sign-in. The
 * records are therefore bounded by bytes, on every backend alike, with room
 * left under the 1 MiB for replicas that add records at the same moment.
 *
 * When a first use would pass the bound, records go until it fits again, and
 * an eighth of the bound more, so pruning runs once per many first uses rather
 * than on each. The order is the one the refresh-token document follows at its
 * cap (src/broker/auth/tokens/refresh-tokens.ts: the oldest goes first), with
 * live sign-ins protected: first the clients without a live refresh-token
 * family, least recently used first; only then clients whose families are
 * still live, least recently used first. A record that does not parse holds
 * no client anyone can use and goes before all.
 */

/** The Kubernetes Secret data limit (`MaxSecretSize`, k8s.io/api core/v1 Secret). */
export const secretDataLimitBytes = 1024 * 1024;

/**
 * Bytes the used clients' records may take together (names and contents): 3/4
 * of a Secret, so that replicas racing to add up to ~58 maximum-size records
 * past a bound they each saw unmet still fit. About 2,000 typical clients.
 */
export const defaultMaxClientRecordBytes = (secretDataLimitBytes * 3) / 4;

export type RecordSummary = {
  document: string;
  clientId: string | null;
  /** Name plus contents, as a Secret counts them (keys are counted too, for margin). */
  bytes: number;
  /** Seconds since the epoch; `lastUsedAt`, else `issuedAt`; `null` when the record does not parse. */
  usedAt: number | null;
};

/** What the bound counts: the stored records, the one being written, and the Secret's other documents. */
type RecordBudget = {
  recordBytes: readonly number[];
  incomingBytes: number;
  otherBytes: number;
  maxBytes: number;
};

function countedBytes(budget: RecordBudget): number {
  return budget.otherBytes + budget.incomingBytes + budget.recordBytes.reduce((sum, bytes) => sum + bytes, 0);
}

/** Whether the records and the incoming one fit the bound, so that none must go. */
export function fitsRecordBudget(budget: RecordBudget): boolean {
  return countedBytes(budget) <= budget.maxBytes;
}

/**
 * The documents to remove so that `records` plus `incomingBytes` (and
 * `otherBytes` of the same Secret) fit `maxBytes`; none while they already do.
 * `keep` is never chosen (the client being written).
 */
export function recordsToPrune(options: {
  records: readonly RecordSummary[];
  incomingBytes: number;
  otherBytes: number;
  maxBytes: number;
  keep: string;
  liveClients: ReadonlySet<string>;
}): string[] {
  const { records, incomingBytes, otherBytes, maxBytes, keep, liveClients } = options;
  const budget = { recordBytes: records.map((record) => record.bytes), incomingBytes, otherBytes, maxBytes };
  let total = countedBytes(budget);
  if (total <= maxBytes) return [];
  const target = maxBytes - Math.floor(maxBytes / 8);
  const rank = (record: RecordSummary) =>
    record.usedAt === null ? 0 : record.clientId !== null && liveClients.has(record.clientId) ? 2 : 1;
  const candidates = records
    .filter((record) => record.clientId !== keep)
    .sort((a, b) => rank(a) - rank(b) || (a.usedAt ?? 0) - (b.usedAt ?? 0) || a.document.localeCompare(b.document));
  const chosen: string[] = [];
  for (const record of candidates) {
    if (total <= target) break;
    chosen.push(record.document);
    total -= record.bytes;
  }
  return chosen;
}
