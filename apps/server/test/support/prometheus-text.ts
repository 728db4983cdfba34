import { Readable } from 'node:stream';
import { getMetricsFromStream, type PromMetrics } from 'prom2javascript';

/**
 * A scrape as Prometheus reads it: the text exposition parsed by prom2javascript, with lookups
 * for the tests. A histogram's sample value is its count.
 *
 * prom2javascript reads no NaN, which the format allows (Prometheus reads it in any case, and
 * prom-client writes `Nan` for an event-loop lag with no sample since the last scrape): those
 * lines are set aside before parsing and kept in `notANumber`.
 */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  samples: Sample[];
}

export class Scrape {
  private constructor(
    readonly text: string,
    readonly families: Map<string, Family>,
    /** The samples whose value is NaN, as they were written. */
    readonly notANumber: string[],
  ) {}

  static async parse(text: string): Promise<Scrape> {
    const lines = text.split('\n');
    const isNaN = (line: string) => !line.startsWith('#') && /\sNaN$/i.test(line.trim());
    const kept = lines.filter((line) => !isNaN(line)).join('\n');
    const parsed: PromMetrics = await getMetricsFromStream(Readable.from([kept]));
    const families = new Map<string, Family>();
    for (const [name, metric] of Object.entries(parsed)) {
      const samples = metric.data.map((data) => ({
        labels: data.labels,
        value: 'value' in data ? data.value : (data.count ?? Number.NaN),
      }));
      families.set(name, { name, type: metric.type, samples });
    }
    return new Scrape(text, families, lines.filter(isNaN));
  }

  family(name: string): Family {
    const found = this.families.get(name);
    if (found === undefined) throw new Error(`no metric ${name} in the scrape`);
    return found;
  }

  /** The value of the one sample of `name` whose labels include `labels`; 0 when there is none. */
  value(name: string, labels: Record<string, string> = {}): number {
    const matching = this.family(name).samples.filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
    if (matching.length > 1) {
      throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
    }
    return matching[0]?.value ?? 0;
  }

  /** Every label value of every sample. */
  labelValues(): string[] {
    return [...this.families.values()].flatMap((family) =>
      family.samples.flatMap((sample) => Object.values(sample.labels)),
    );
  }
}
