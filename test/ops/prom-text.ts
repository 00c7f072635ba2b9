/** A strict reader of the Prometheus text exposition format (0.0.4), for the /metrics tests. */

/** One sample line: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** What {@link parsePromText} returns: every sample, and the declared type of each family. */
export interface PromText {
  samples: Sample[];
  types: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|(?=\}))/;

/**
 * Parses the text, throwing on any line that is not a comment, `# HELP`, `# TYPE` or a
 * valid sample, and on a sample whose family has no `# TYPE` line before it.
 */
export function parsePromText(text: string): PromText {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type !== null) types.set(type[1]!, type[2]!);
      else if (!/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) throw new Error(`bad comment, ${where}`);
      return;
    }
    const name = NAME.exec(line)?.[0];
    if (name === undefined) throw new Error(`no metric name, ${where}`);
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      rest = rest.slice(1);
      while (!rest.startsWith('}')) {
        const label = LABEL.exec(rest);
        if (label === null) throw new Error(`bad label, ${where}`);
        labels[label[1]!] = label[2]!.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
        rest = rest.slice(label[0].length);
      }
      rest = rest.slice(1);
    }
    const value = /^ (\S+)( -?\d+)?$/.exec(rest)?.[1];
    if (value === undefined) throw new Error(`bad value, ${where}`);
    // As Prometheus reads it (Go's ParseFloat): Inf and NaN in any letter case.
    const special = /^([+-]?)(inf|nan)$/i.exec(value);
    const number =
      special === null
        ? Number(value)
        : special[2]!.toLowerCase() === 'nan'
          ? NaN
          : special[1] === '-'
            ? -Infinity
            : Infinity;
    if (Number.isNaN(number) && special === null) throw new Error(`bad number, ${where}`);
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`sample before its # TYPE line, ${where}`);
    samples.push({ name, labels, value: number });
  });
  return { samples, types };
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. */
export function valueOf(
  text: PromText,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = text.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
