// The simulator's queues and logs let entries go from their head (expired, forgotten, taken) by
// moving an index, and copy out the live entries only now and then: once at least this many are dead
// and they are at least half of the backing array. A backing array so holds its live entries plus
// at most as many dead ones, or this many: memory follows what is live, at amortised O(1) per entry.
export const SIM_COMPACT_MIN_DEAD = 1_024;
