// autocannon 9 ships no types (DefinitelyTyped's @types/autocannon stops at 7.12): the part of
// its programmatic API the benchmarks use, read from autocannon/lib/run.js and aggregateResult.js.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      body?: string;
      headers?: Record<string, string>;
      /** Called before each request is sent; returns the request to send. */
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
    }

    interface Options {
      url: string;
      method?: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      pipelining?: number;
      body?: string;
      headers?: Record<string, string>;
      /** Each connection cycles through these. */
      requests?: Request[];
    }

    /** A histogram summary: milliseconds for latency, requests per second for requests. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      /** Every answer whose status is not 2xx (3xx included). */
      non2xx: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      /** Answers by status code: { '200': { count: 9000 }, '429': { count: 12 } }. */
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { total: number; sent: number };
      throughput: Histogram & { total: number };
    }
  }

  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
