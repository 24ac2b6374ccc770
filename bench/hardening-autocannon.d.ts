/** The slice of autocannon's API the hardening load test uses (the package ships no types). */
declare module "autocannon" {
  interface Histogram {
    p50: number;
    p99: number;
    max: number;
    average: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Array<{ method?: "GET" | "POST"; path: string }>;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
