// The Notification service's part of the emulator state: plain JSON, so it can be saved to a file.

export type NotificationFilterValue = string | number | boolean;

/** A filter as the service answers it: the operator is always there ("==" when not given). */
export interface NotificationFilterRecord {
  field: string;
  value: NotificationFilterValue;
  operator: string;
}

/** An email recipient carries `address`, a webhook recipient `url` (the service's swagger). */
export type NotificationRecipientRecord = { channel: "email"; address: string } | { channel: "webhook"; url: string };

/** A project subscription (keboola-sdk-go pkg/keboola/notification_model.go `NotificationSubscription`). */
export interface NotificationSubscriptionRecord {
  /** A numeric string. */
  id: string;
  projectId: string;
  event: string;
  filters: NotificationFilterRecord[];
  recipient: NotificationRecipientRecord;
  /** Epoch milliseconds, when the subscription expires. */
  expiresAtMs?: number;
}

export interface NotificationState {
  /** By id. */
  subscriptions: Record<string, NotificationSubscriptionRecord>;
}

export function initialNotificationState(): NotificationState {
  return { subscriptions: {} };
}
