// The fixed vocabularies settings choose from: sending regions and process roles.
export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type Region = (typeof REGIONS)[number];
export const ROLES = ['api', 'smtp', 'mx', 'worker'] as const;
export type Role = (typeof ROLES)[number];
