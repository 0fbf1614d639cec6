import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Semaphore } from '../../../concurrency/semaphore.ts';
import type { Finding } from './diagnose.ts';

/** A finished doctor report: what every page of it shows. */
export type DoctorReport = {
  worlds: number;
  documents: number;
  findings: readonly Finding[];
  notExamined: ReadonlyArray<{ world: string; reason: string }>;
};

/** A caller asked for a second report while its first was still being made. */
export class DoctorBusyError extends Error {
  override readonly name = 'DoctorBusyError';
}

export type DoctorRunsOptions = {
  /** How long a finished report's later pages are served from it (default 10 minutes). */
  ttlMs?: number;
  /** Reports held at most, and findings in all of them at most: the least recently read goes first. */
  maxReports?: number;
  maxFindings?: number;
  /** Reports being made at once by all callers; more wait for a place (default 2). */
  concurrentRuns?: number;
  now?: () => number;
};

type Held = { subject: string; input: string; report: DoctorReport };

/**
 * The doctor's finished reports and its runs in flight (docs/knowledge.md "mark_doctor"). A report
 * reads every document of the worlds asked for, so it is made once per call without a cursor and its
 * later pages come from the copy kept here, under a random id the cursor carries: paging a 9-page
 * report costs one run, not nine, and every page shows the same report. A copy is found only by the
 * caller (subject) that made it and for the same arguments, for `ttlMs`; it is held in this process
 * only, so a cursor reaching another replica, or a copy expired or evicted, is unknown and the caller
 * starts over. Runs are bounded: one per caller at a time (a second is refused at once, since it
 * would redo the same reading), and `concurrentRuns` for everyone (src/concurrency).
 */
export class DoctorRuns {
  readonly #reports: LRUCache<string, Held>;
  /** Subjects with a run under way: a second is refused, never queued, so no waiting slot is needed. */
  readonly #running = new Set<string>();
  readonly #everyone: Semaphore;

  constructor(options: DoctorRunsOptions = {}) {
    this.#everyone = new Semaphore(options.concurrentRuns ?? 2);
    this.#reports = new LRUCache<string, Held>({
      max: options.maxReports ?? 64,
      maxSize: options.maxFindings ?? 200_000,
      // lru-cache sizes are positive: a report without findings counts one.
      sizeCalculation: (held) => held.report.findings.length + 1,
      // lru-cache expires them (as src/broker/graph/read-check.ts does); ttlResolution 0 reads the
      // clock at every check, so an injected `now` is never answered from lru-cache's cached time.
      ttl: options.ttlMs ?? 10 * 60_000,
      ttlResolution: 0,
      ...(options.now === undefined ? {} : { perf: { now: options.now } }),
    });
  }

  /** Makes a report for `subject`, unless one of its runs is under way (DoctorBusyError). */
  async run(subject: string, make: () => Promise<DoctorReport>, signal?: AbortSignal): Promise<DoctorReport> {
    if (this.#running.has(subject))
      throw new DoctorBusyError(
        'a mark_doctor report of yours is still being made: wait for its answer, then page through it with its next-cursor',
      );
    this.#running.add(subject);
    try {
      await this.#everyone.acquire(signal);
      try {
        return await make();
      } finally {
        this.#everyone.release();
      }
    } finally {
      this.#running.delete(subject);
    }
  }

  /** Keeps a report for its later pages and returns the id its cursors carry. */
  keep(subject: string, input: string, report: DoctorReport): string {
    const id = randomBytes(12).toString('base64url');
    this.#reports.set(id, { subject, input, report });
    return id;
  }

  /** The report kept under `id` for this subject and input; undefined when unknown, expired, or another's. */
  held(id: string, subject: string, input: string): DoctorReport | undefined {
    const held = this.#reports.get(id);
    if (held === undefined || held.subject !== subject || held.input !== input) return undefined;
    return held.report;
  }
}
