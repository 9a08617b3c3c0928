import type { RawMessage } from '../transport.js';

/** What the renderer needs of one subscriber; loadRecipients reads it for a batch in a few queries. */
export interface RecipientData {
  subscriberId: number;
  uniqueId: string;
  email: string;
  htmlEmail: boolean;
  confirmed: boolean;
  blacklisted: boolean;
  disabled: boolean;
  bounceCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** UPPER-CASED attribute name (white space collapsed) → display value (option ids resolved to option names). */
  attributes: ReadonlyMap<string, string>;
  /** Names of the subscriber's public lists, by name. */
  lists: readonly string[];
}

/**
 * A recipient who is not a subscriber (a preview's sample, a forwarded copy's friend): confirmed, HTML, id 0, so its
 * tracked links and bounces lead to nobody. `who` gives what differs.
 */
export function standInRecipient(who: Pick<RecipientData, 'uniqueId' | 'email' | 'attributes' | 'lists'>): RecipientData {
  const now = new Date();
  return {
    subscriberId: 0,
    htmlEmail: true,
    confirmed: true,
    blacklisted: false,
    disabled: false,
    bounceCount: 0,
    createdAt: now,
    updatedAt: now,
    ...who,
  };
}

export interface Rendered {
  readonly message: RawMessage;
  /** `html` when the mail has an HTML part (with its text alternative), `text` when it is text only. */
  readonly format: 'html' | 'text';
  /** The Message-ID header's value, angle brackets included: `<c12.s34.0a1b2c3d@lists.example.com>`. */
  readonly messageId: string;
}

export interface CompiledCampaign {
  readonly campaignId: number;
  /**
   * The finished mail for one recipient: string joins over what compileCampaign prepared. Throws RecipientError
   * when the address cannot be written into a header (the delivery should be skipped, not retried).
   */
  render(recipient: RecipientData, deliveryId: number | null): Rendered;
}

/** The campaign cannot be composed (it is gone, or an attachment's file is missing from storage). */
export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompileError';
  }
}

/** This recipient's address cannot be used in a mail header (control characters, no `@`). */
export class RecipientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecipientError';
  }
}
