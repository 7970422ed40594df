// What the queue holds, for the Prometheus scrape: jobs by kind and state, and how late the
// oldest due job of each kind is.
export { jobsSummary as queueSummary } from '../store/jobs.js';
