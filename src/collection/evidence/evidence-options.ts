import { DEFAULT_CLICK_HALF_LIFE_DAYS } from './click-evidence.js';

/** When and how evidence is processed (resolved; see {@link evidenceOptionsFrom}). */
export interface EvidenceOptions {
  /** Anchor text is brought up to date this long after a commit (commits in between share the run). */
  updateDelayMs: number;
  /** Click logs are processed this often; 0: only on demand (`POST .../click-logs`). */
  clickIntervalMs: number;
  /** A click loses half its weight in this many days. */
  halfLifeDays: number;
  /** Processed click logs are kept this many days (to rebuild the click evidence if its file is lost). */
  retentionDays: number;
  /**
   * A rotated click log is finished (moved to `processed/`) only once it is this old: a
   * writer that opened `clicks.log` just before the rotation may still append a line to it,
   * and such a line is counted on the next run (offsets make every line count once).
   */
  rotationGraceMs: number;
  /** The clock (ms since the epoch). */
  now: () => number;
}

/** `collection.cfg` keys read by evidence processing, with their defaults. */
export const EVIDENCE_CONFIG_KEYS = {
  updateDelay: { key: 'push.evidence.delay-seconds', default: 5 },
  clickInterval: { key: 'push.click-logs.interval-seconds', default: 3600 },
  halfLife: { key: 'push.click-logs.half-life-days', default: DEFAULT_CLICK_HALF_LIFE_DAYS },
  retention: { key: 'push.click-logs.retention-days', default: 180 },
} as const;

/**
 * Evidence options from a collection's configuration (keys not in the core table: they
 * arrive in `config.extra`). A value that is not a number in range falls back to the
 * default and is reported through `warn`, so a typo never stops a collection.
 */
export function evidenceOptionsFrom(
  extra: ReadonlyMap<string, string>,
  warn: (message: string) => void = () => {},
  overrides: Partial<EvidenceOptions> = {},
): EvidenceOptions {
  const read = (spec: { key: string; default: number }, min: number, max: number): number => {
    const text = extra.get(spec.key);
    if (text === undefined || text.trim() === '') return spec.default;
    const value = Number(text.trim());
    if (Number.isFinite(value) && value >= min && value <= max) return value;
    warn(`${spec.key}=${text} is not a number from ${min} to ${max}; using ${spec.default}`);
    return spec.default;
  };
  return {
    updateDelayMs: read(EVIDENCE_CONFIG_KEYS.updateDelay, 0, 86_400) * 1000,
    clickIntervalMs: read(EVIDENCE_CONFIG_KEYS.clickInterval, 0, 31_536_000) * 1000,
    halfLifeDays: read(EVIDENCE_CONFIG_KEYS.halfLife, 0.001, 36_500),
    retentionDays: read(EVIDENCE_CONFIG_KEYS.retention, 0, 36_500),
    rotationGraceMs: 60_000,
    now: () => Date.now(),
    ...overrides,
  };
}
