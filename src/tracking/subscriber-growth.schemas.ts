import { Type, type Static } from '@sinclair/typebox';

export const SubscriberGrowthQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, default: 90, description: 'UTC days to answer, ending today (1..366, default 90)' })),
});
export type SubscriberGrowthQuery = Static<typeof SubscriberGrowthQuery>;

/** Ours (the console's dashboard): subscriber totals, and subscribers per UTC day from their creation dates. */
export const SubscriberGrowth = Type.Object({
  totals: Type.Object(
    {
      subscribers: Type.Integer({ minimum: 0 }),
      confirmed: Type.Integer({ minimum: 0 }),
      blacklisted: Type.Integer({ minimum: 0, description: 'Subscribers flagged blacklisted' }),
    },
    { description: 'Counted in the same pass as the days' },
  ),
  days: Type.Array(
    Type.Object({
      date: Type.String({ description: '`YYYY-MM-DD`, UTC' }),
      new: Type.Integer({ minimum: 0, description: 'Subscribers created that day who still exist' }),
      total: Type.Integer({ minimum: 0, description: 'Subscribers existing at the end of that day (deletions are not dated)' }),
    }),
    { description: 'Every day of the window, oldest first, quiet days with new = 0' },
  ),
});
export type SubscriberGrowth = Static<typeof SubscriberGrowth>;
