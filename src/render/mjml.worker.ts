// The worker thread of render/mjml.ts (started by its renderDocument through lib/worker-task.ts):
// renders one document per call, off the API's event loop.
import { serveTask } from '../lib/worker-task.js';
import { renderDocumentHere } from './mjml-render.js';

serveTask(renderDocumentHere);
