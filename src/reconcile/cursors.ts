// Pure poll-cursor logic for the reconciliation pollers, in one import: fills paging, order-history
// windows, plan-history windows and the adaptive poll interval. See each module for its rules.
export {
  afterFillsPage,
  beginFillsPoll,
  decodeFillsCursor,
  encodeFillsCursor,
  fillsQuery,
  type FillsCursor,
  type FillsPaging,
  type FillsPagingConfig,
  type FillsStep,
} from './fills-paging.ts';
export {
  combinedCoverage,
  historyCoverage,
  historyQueries,
  HISTORY_MAX_AGE_MS,
  type HistoryWindowConfig,
} from './history-window.ts';
export {
  nextPlanPage,
  planHistoryQueries,
  type DelegateType,
  type PlanCursor,
  type PlanPollPlan,
  type PlanWindowConfig,
} from './plan-history-window.ts';
export {
  activityOf,
  pollInterval,
  pollPace,
  type PollActivity,
  type PollIntervals,
  type PollPace,
} from './poll-interval.ts';
