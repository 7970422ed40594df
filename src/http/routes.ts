// Every API route; this list is the whole HTTP surface. A file under api/ owns one resource's routes,
// whole (`<resource>.ts`) or one action of it (`<resource>.<action>.ts`, with that action's aliases),
// or its shared schemas (`<resource>.schema.ts`); test/house/routes.test.ts holds the rule.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from './types.js';
import { registerHealth } from './health.js';
import { registerDashboard } from './dashboard/index.js';
import apiKeysCreate from './api/api-keys.create.js';
import apiKeysList from './api/api-keys.list.js';
import apiKeysUpdate from './api/api-keys.update.js';
import apiKeysDelete from './api/api-keys.delete.js';
import domainsCreate from './api/domains.create.js';
import domainsList from './api/domains.list.js';
import domainsGet from './api/domains.get.js';
import domainsUpdate from './api/domains.update.js';
import domainsVerify from './api/domains.verify.js';
import domainsDelete from './api/domains.delete.js';
import domainsHealth from './api/domains.health.js';
import domainsDmarcReports from './api/domains.dmarc-reports.js';
import domainsReputation from './api/domains.reputation.js';
import domainsClaims from './api/domains.claims.js';
import logsList from './api/logs.list.js';
import logsGet from './api/logs.get.js';
import auditLogList from './api/audit-log.list.js';
import emailsSend from './api/emails.send.js';
import emailsBatch from './api/emails.batch.js';
import emailsGet from './api/emails.get.js';
import emailsAttachments from './api/emails.attachments.js';
import emailsShare from './api/emails.share.js';
import usage from './api/usage.js';
import emailsList from './api/emails.list.js';
import emailsUpdate from './api/emails.update.js';
import emailsCancel from './api/emails.cancel.js';
import emailsEvents from './api/emails.events.js';
import emailsMetrics from './api/emails.metrics.js';
import emailsInsights from './api/emails.insights.js';
import insightsList from './api/insights.list.js';
import emailsReceivingList from './api/emails.receiving.list.js';
import emailsReceivingGet from './api/emails.receiving.get.js';
import emailsReceivingAttachmentsList from './api/emails.receiving.attachments.list.js';
import emailsReceivingAttachmentsGet from './api/emails.receiving.attachments.get.js';
import inboundDownload from './api/inbound.download.js';
import suppressions from './api/suppressions.js';
import metricsPrometheus from './api/metrics.prometheus.js';
import contactsCreate from './api/contacts.create.js';
import contactsList from './api/contacts.list.js';
import contactsGet from './api/contacts.get.js';
import contactsUpdate from './api/contacts.update.js';
import contactsDelete from './api/contacts.delete.js';
import contactsImports from './api/contacts.imports.js';
import contactsSearch from './api/contacts.search.js';
import contactsTopics from './api/contacts.topics.js';
import topics from './api/topics.js';
import segments from './api/segments.js';
import templates from './api/templates.js';
import templatesRender from './api/templates.render.js';
import broadcasts from './api/broadcasts.js';
import broadcastsPreview from './api/broadcasts.preview.js';
import events from './api/events.js';
import eventsSend from './api/events.send.js';
import automations from './api/automations.js';
import contactsEvents from './api/contacts.events.js';
import customEventsList from './api/custom-events.list.js';
import contactsSegments from './api/contacts.segments.js';
import contactPropertiesCreate from './api/contact-properties.create.js';
import contactPropertiesList from './api/contact-properties.list.js';
import contactPropertiesGet from './api/contact-properties.get.js';
import contactPropertiesUpdate from './api/contact-properties.update.js';
import contactPropertiesDelete from './api/contact-properties.delete.js';
import webhooksCreate from './api/webhooks.create.js';
import webhooksList from './api/webhooks.list.js';
import webhooksGet from './api/webhooks.get.js';
import webhooksUpdate from './api/webhooks.update.js';
import webhooksDelete from './api/webhooks.delete.js';
import webhooksRotate from './api/webhooks.rotate.js';
import webhooksEventsList from './api/webhooks.events.list.js';
import webhooksEventsGet from './api/webhooks.events.get.js';
import webhooksEventsAttempts from './api/webhooks.events.attempts.js';
import webhooksEventsReplay from './api/webhooks.events.replay.js';
import trackingOpen from './api/tracking.open.js';
import trackingClick from './api/tracking.click.js';
import unsubscribe from './api/unsubscribe.js';
import oauthAuthorize from './api/oauth.authorize.js';
import oauthToken from './api/oauth.token.js';
import oauthRevoke from './api/oauth.revoke.js';
import oauthGrants from './api/oauth.grants.js';
import inboxes from './api/inboxes.js';
import inboxesLabels from './api/inboxes.labels.js';
import inboxesThreads from './api/inboxes.threads.js';
import inboxesThreadsLabels from './api/inboxes.threads-labels.js';
import inboxesThreadsEmails from './api/inboxes.threads-emails.js';
import inboxesThreadsAnswers from './api/inboxes.threads-answers.js';
import inboxesDrafts from './api/inboxes.drafts.js';
import inboxesAgent from './api/inboxes.agent.js';
import privacyErasures from './api/privacy.erasures.js';
import privacyExports from './api/privacy.exports.js';
import privacyRetention from './api/privacy.retention.js';

const ENDPOINTS = [
  apiKeysCreate,
  apiKeysList,
  apiKeysUpdate,
  apiKeysDelete,
  domainsCreate,
  domainsList,
  domainsGet,
  domainsUpdate,
  domainsVerify,
  domainsDelete,
  domainsHealth,
  domainsDmarcReports,
  domainsReputation,
  domainsClaims,
  logsList,
  logsGet,
  auditLogList,
  emailsSend,
  emailsBatch,
  emailsGet,
  emailsList,
  emailsUpdate,
  emailsCancel,
  emailsEvents,
  emailsMetrics,
  emailsInsights,
  insightsList,
  emailsAttachments,
  emailsShare,
  usage,
  emailsReceivingList,
  emailsReceivingGet,
  emailsReceivingAttachmentsList,
  emailsReceivingAttachmentsGet,
  inboundDownload,
  suppressions,
  metricsPrometheus,
  contactsCreate,
  contactsList,
  contactsImports,
  contactsSearch,
  contactsGet,
  contactsUpdate,
  contactsDelete,
  contactsTopics,
  topics,
  segments,
  contactsSegments,
  templates,
  templatesRender,
  broadcasts,
  broadcastsPreview,
  eventsSend,
  events,
  contactsEvents,
  automations,
  customEventsList,
  privacyErasures,
  privacyExports,
  privacyRetention,
  contactPropertiesCreate,
  contactPropertiesList,
  contactPropertiesGet,
  contactPropertiesUpdate,
  contactPropertiesDelete,
  webhooksCreate,
  webhooksList,
  webhooksGet,
  webhooksUpdate,
  webhooksDelete,
  webhooksRotate,
  webhooksEventsList,
  webhooksEventsGet,
  webhooksEventsAttempts,
  webhooksEventsReplay,
  trackingOpen,
  trackingClick,
  unsubscribe,
  oauthAuthorize,
  oauthToken,
  oauthRevoke,
  oauthGrants,
  inboxes,
  inboxesLabels,
  inboxesThreads,
  inboxesThreadsLabels,
  inboxesThreadsEmails,
  inboxesThreadsAnswers,
  inboxesDrafts,
  inboxesAgent,
];

export async function registerRoutes(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  registerHealth(app, deps);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const register of ENDPOINTS) register(typed, deps);
  await registerDashboard(app, deps); // the SPA at / and /dashboard-api/*
}
