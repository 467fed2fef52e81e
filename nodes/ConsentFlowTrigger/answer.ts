/**
 * How and when the trigger answers a delivery, and when it remembers the delivery's id: one pure
 * decision from the respond mode, what the running n8n offers and the duplicate state. The node
 * carries it out; respond.ts says why each way is safe. No n8n imports.
 *
 * The rule every row keeps: an id is remembered only where a copy that arrives later may be
 * answered "duplicate" without losing the delivery — once its execution exists (Immediately) or
 * once the workflow succeeded (When the Workflow Finishes) — and is forgotten again where the
 * answer that would have made it safe did not go out.
 */
import type { RespondMode } from './respond';

/** Who sends the answer that tells the service the delivery was taken. */
export type Answerer =
	/** n8n, once it stored the execution (n8n 2.x, Immediately, static parameters). */
	| 'n8n-when-stored'
	/** The node's execute(), the execution's first step (Immediately elsewhere). */
	| 'execute'
	/** n8n, after the workflow ended: 200, or 500 when it failed (When the Workflow Finishes). */
	| 'n8n-after-run';

/**
 * When the delivery's id joins the remembered ids: when n8n has stored the execution, when the
 * execution's first step answers (saved with the execution's static data), after a 2xx answer
 * went out, or never (no id).
 */
export type RememberWhen = 'when-stored' | 'when-answered' | 'after-2xx' | 'never';

export interface AnswerPlan {
	answeredBy: Answerer;
	remember: RememberWhen;
	/** A copy arriving while this delivery is not settled gets 409 (retryable), not a run. */
	holdCopies: boolean;
}

/**
 * The plan for a delivery: `atEnqueue` is whether the running n8n answers Immediately deliveries
 * once it stored the execution (respond.ts `answersAtEnqueue`); `hasKey` whether the delivery
 * has an id and duplicates are ignored.
 */
export function answerPlan(respond: RespondMode, atEnqueue: boolean, hasKey: boolean): AnswerPlan {
	const answeredBy: Answerer =
		respond === 'lastNode' ? 'n8n-after-run' : atEnqueue ? 'n8n-when-stored' : 'execute';
	if (!hasKey) return { answeredBy, remember: 'never', holdCopies: false };
	switch (answeredBy) {
		case 'n8n-when-stored':
			return { answeredBy, remember: 'when-stored', holdCopies: true };
		case 'execute':
			// Not before the execution exists: n8n saves the webhook's static data before it
			// creates the execution, and a process that stopped in between would leave an id
			// whose retry is answered "duplicate" without ever running.
			return { answeredBy, remember: 'when-answered', holdCopies: true };
		default:
			return { answeredBy, remember: 'after-2xx', holdCopies: true };
	}
}

/** What happens to a delivery that passed the signature, freshness and event checks. */
export type Admission =
	/** 200 "duplicate": its id is remembered, nothing runs. */
	| 'duplicate'
	/** 409: a copy of it is not settled yet in this process; the service retries. */
	| 'in-progress'
	/** It runs (and is answered as the plan says). */
	| 'run';

export function admit(
	plan: AnswerPlan,
	state: { duplicate: boolean; copyInFlight: boolean },
): Admission {
	if (plan.remember === 'never') return 'run';
	if (state.duplicate) return 'duplicate';
	if (plan.holdCopies && state.copyInFlight) return 'in-progress';
	return 'run';
}

/** After the answer went out (`answered`: a 2xx that was written in full) or did not. */
export type Settlement = 'remember' | 'forget' | 'keep';

export function settle(plan: AnswerPlan, answered: boolean): Settlement {
	if (plan.remember === 'after-2xx') return answered ? 'remember' : 'keep';
	if (plan.remember === 'when-stored') return answered ? 'keep' : 'forget';
	if (plan.remember === 'when-answered') return answered ? 'remember' : 'forget';
	return 'keep';
}
