import type { Answer } from '../api/types';

/** A bounce rule as the API answers it; shared by the rules list and its form. */
export type Rule = Answer<'/api/v2/bounces/regex/{ruleId}', 'get'>;

export const ACTION_LABELS: Record<string, string> = {
  deletebounce: 'Delete the bounce',
  unconfirmuser: 'Unconfirm the subscriber',
  unconfirmuseranddeletebounce: 'Unconfirm the subscriber, delete the bounce',
  decreasecountconfirmuseranddeletebounce: 'Take the bounce off the count, confirm the subscriber, delete the bounce',
  blacklistuser: 'Blacklist the subscriber',
  blacklistuseranddeletebounce: 'Blacklist the subscriber, delete the bounce',
  blacklistemail: 'Blacklist the address',
  blacklistemailanddeletebounce: 'Blacklist the address, delete the bounce',
  deleteuser: 'Delete the subscriber',
  deleteuserandbounce: 'Delete the subscriber and the bounce',
};
