// The worker thread of dmarc-report.ts (started by its reportsIn through lib/worker-task.ts):
// reads one attachment's reports per call, off the main event loop.
import { serveTask } from '../lib/worker-task.js';
import { readReports } from './dmarc-report.js';

serveTask(readReports);
