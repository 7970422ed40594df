// The shapes of a filter rule tree (segments' `filter`, automations' `condition`), in their normal
// form. Only types and constants: parsing is contacts/filter.ts, SQL is store/segment-filter.ts.
export const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'starts_with', 'ends_with', 'exists', 'is_empty', 'in'] as const;
export type Op = (typeof OPS)[number];
export const ENGAGEMENTS = ['delivered', 'opened', 'clicked', 'bounced', 'complained'] as const;
export type Engagement = (typeof ENGAGEMENTS)[number];
export type Scalar = string | number | boolean;

export type FieldRule = { field: string; op: Op; value?: Scalar | Scalar[] };
export type TopicRule = { topic: string; subscribed: boolean };
export type EngagementRule = { engagement: Engagement; within_days?: number; never?: boolean };
export type SegmentRule = { segment: string };
export type Rule = { and: Rule[] } | { or: Rule[] } | { not: Rule } | FieldRule | TopicRule | EngagementRule | SegmentRule;

