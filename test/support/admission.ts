import { FACTS, decide, type AnswerPlan } from '../../nodes/shared/webhook/decide';

export type Admission = 'run' | 'duplicate' | 'in-progress' | 'busy';

const REFUSALS: Record<number, Admission> = { 200: 'duplicate', 409: 'in-progress', 503: 'busy' };

/** What decide() does with a selected, verified delivery under `plan`: run it or which refusal. */
export function admit(
	plan: AnswerPlan,
	state: { duplicate: boolean; copyInFlight: boolean; flightFull: boolean },
): Admission {
	const delivery = { event: 'consent.data', webhookId: 'wh-1', recognised: true };
	const answer = decide({
		...FACTS,
		verified: true,
		selected: true,
		delivery,
		duplicate: state.duplicate,
		copyInFlight: state.copyInFlight,
		flightFull: state.flightFull,
		answeredBy: plan.answeredBy,
		hasKey: plan.remember !== 'never',
	});
	return answer.kind === 'run' ? 'run' : REFUSALS[answer.status];
}
