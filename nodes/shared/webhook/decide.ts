/** Every answer of both webhook entry points, from a delivery's facts (docs/architecture.md, "One decision table"). */

export type RespondMode = 'onReceived' | 'lastNode';

export type Answerer = 'n8n-when-stored' | 'execute' | 'n8n-after-run';

type RememberWhen = 'when-stored' | 'when-answered' | 'after-2xx' | 'never';

export interface AnswerPlan {
	answeredBy: Answerer;
	/** Never without a key; with one, copies are held (409) until the run settles. */
	remember: RememberWhen;
}

type DeliveryStatus = 'emitted' | 'duplicate' | 'filtered' | 'stale' | 'in-progress' | 'ignored';

interface DeliveryFacts {
	event: string | null;
	webhookId: string | null;
	recognised: boolean;
	reason?: string;
	size?: number;
}

export type Ack = Omit<DeliveryFacts, 'recognised'> & { received: true; status: DeliveryStatus };

export interface Facts {
	entry: 'trigger' | 'resume';
	closing: boolean;
	verified: boolean;
	delivery: DeliveryFacts | null;
	stale: boolean;
	misconfigured: string | null;
	selected: boolean;
	answeredBy: Answerer;
	hasKey: boolean;
	duplicate: boolean;
	copyInFlight: boolean;
	/** As many runs are held in flight as the bound allows (dedupe.ts MAX_IN_FLIGHT). */
	flightFull: boolean;
	canResume: boolean;
}

export type Answer =
	| {
			kind: 'now';
			by: 'node' | 'n8n';
			status: number;
			body: unknown;
			headers?: Record<string, string>;
	  }
	| { kind: 'run'; plan: AnswerPlan; ack: Ack | null };

export const FACTS: Facts = {
	entry: 'trigger',
	closing: false,
	verified: false,
	delivery: null,
	stale: false,
	misconfigured: null,
	selected: false,
	answeredBy: 'execute',
	hasKey: false,
	duplicate: false,
	copyInFlight: false,
	flightFull: false,
	canResume: false,
};

/** The body of an answer that took nothing: the status names what happened, the message what to do. */
const notTaken = (status: string, message: string) => ({ received: false, status, message });

export const SHUTTING_DOWN = notTaken(
	'shutting-down',
	'This n8n process is stopping and did not take the delivery. Send it again.',
);

export const FLIGHT_FULL = notTaken(
	'busy',
	'This trigger holds as many deliveries whose runs have not finished as it can follow and did not take this one. Send it again later.',
);

export const UNSUPPORTED_RESUME = notTaken(
	'unsupported',
	'This n8n version resumes waiting executions in a way the Consent Flow node does not know; the execution keeps waiting.',
);

export function answererOf(respond: RespondMode, atEnqueue: boolean): Answerer {
	if (respond === 'lastNode') return 'n8n-after-run';
	return atEnqueue ? 'n8n-when-stored' : 'execute';
}

/** Nothing is remembered before its execution exists, nor kept without a 2xx (docs/architecture.md). */
export function answerPlan(answeredBy: Answerer, hasKey: boolean): AnswerPlan {
	if (!hasKey) return { answeredBy, remember: 'never' };
	const remember: Record<Answerer, RememberWhen> = {
		'n8n-when-stored': 'when-stored',
		execute: 'when-answered',
		'n8n-after-run': 'after-2xx',
	};
	return { answeredBy, remember: remember[answeredBy] };
}

type Settlement = 'remember' | 'forget' | 'keep';

/**
 * What the package learns about a run (docs/architecture.md, "Fate follows the execution"):
 * n8n stored the execution, execute() took the copy here, n8n answered 2xx or not (seen whether
 * or not the connection is still open), the connection closed, or nothing was heard within
 * FLIGHT_BOUND_MS.
 */
export type RunEvent = 'stored' | 'executed' | 'succeeded' | 'failed' | 'closed' | 'expired';

interface Settled {
	memory: Settlement;
	/** Whether the copy stops being in flight: later copies are then answered by the memory. */
	release: boolean;
}

const done = (memory: Settlement): Settled => ({ memory, release: true });

/** The event by which a run's execution exists, where it is not only its 2xx answer. */
const EXISTS_WHEN: Partial<Record<RememberWhen, RunEvent>> = {
	'when-stored': 'stored',
	'when-answered': 'executed',
};

/**
 * What one event of a held run does to its key; the first releasing event settles it (dedupe.ts).
 * Once its execution exists a key is remembered; a failed answer lets it go. A closed connection
 * is no fact about the run; silence past the bound may run it twice, never lose it.
 */
export function settle(plan: AnswerPlan, event: RunEvent): Settled {
	if (plan.remember === 'never') return done('keep');
	if (event === 'failed' || event === 'expired') return done('forget');
	if (event === 'succeeded' || event === EXISTS_WHEN[plan.remember]) return done('remember');
	return { memory: 'keep', release: false };
}

const byNode = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({
	kind: 'now',
	by: 'node',
	status,
	body,
	...(headers && { headers }),
});

export function decide(f: Facts): Answer {
	if (f.closing) return byNode(503, SHUTTING_DOWN, { 'retry-after': '1', connection: 'close' });
	if (!f.verified || f.delivery === null) return byNode(401, 'Unauthorized');
	if (f.misconfigured !== null) {
		return byNode(500, notTaken('misconfigured', f.misconfigured));
	}
	const { event, webhookId, recognised, reason, size } = f.delivery;
	const ack = (status: DeliveryStatus): Ack => ({ received: true, event, webhookId, status });
	const byN8n = (status: DeliveryStatus): Answer => ({
		kind: 'now',
		by: 'n8n',
		status: 200,
		body: ack(status),
	});
	if (f.stale) return byN8n('stale');
	if (f.entry === 'resume') {
		if (!recognised) return byNode(200, { ...ack('ignored'), reason, size });
		if (!f.canResume) return byNode(500, UNSUPPORTED_RESUME);
		return { kind: 'run', plan: answerPlan('n8n-after-run', false), ack: null };
	}
	if (!f.selected) return byN8n('filtered');
	if (f.hasKey && f.duplicate) return byN8n('duplicate');
	if (f.hasKey && f.copyInFlight) return byNode(409, ack('in-progress'));
	// a full set of held runs refuses a new one rather than let an unfinished one go (its copies would run)
	if (f.hasKey && f.flightFull) return byNode(503, FLIGHT_FULL, { 'retry-after': '1' });
	return { kind: 'run', plan: answerPlan(f.answeredBy, f.hasKey), ack: ack('emitted') };
}

/** execute()'s part of a run; `claim` is null when no copy was checked (no key, test URL). */
export function inExecution(
	answeredBy: Answerer,
	claim: 'mine' | 'taken' | null,
): { emit: boolean; answer: 'emitted' | 'duplicate' | null } {
	const answers = answeredBy === 'execute';
	if (claim === 'taken') return { emit: false, answer: answers ? 'duplicate' : null };
	return { emit: true, answer: answers ? 'emitted' : null };
}
