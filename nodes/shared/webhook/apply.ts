/** Carries out decide.ts's answer: the only code that writes to a delivery's HTTP response. */
import type { INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { answerWhenStored, whenAnswered } from '../n8n-compat';
import type { Answer, RunEvent } from './decide';
import type { ResponseLike } from './verify';

/** The delivery memory's side of a run (dedupe.ts): told what became of it. */
export interface Held {
	report(event: RunEvent): void;
}

/** Tells `held` how n8n answered the run, and when the connection closed (which alone changes nothing). */
function follow(res: ResponseLike, held: Held): void {
	whenAnswered(res, (status) =>
		held.report(status >= 200 && status < 300 ? 'succeeded' : 'failed'),
	);
	res.once?.('close', () => held.report('closed'));
}

export function apply(
	ctx: IWebhookFunctions,
	answer: Answer,
	run: { items: INodeExecutionData[]; held?: Held } = { items: [] },
): IWebhookResponseData {
	const res = ctx.getResponseObject() as unknown as ResponseLike;
	if (answer.kind === 'now') {
		if (answer.by === 'n8n') return { webhookResponse: answer.body };
		for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader?.(name, value);
		if (typeof answer.body === 'string') res.status(answer.status).send(answer.body).end();
		else res.status(answer.status).json(answer.body);
		return { noWebhookResponse: true };
	}
	const { held } = run;
	if (held) follow(res, held);
	const workflowData = [run.items];
	switch (answer.plan.answeredBy) {
		case 'n8n-when-stored':
			return answerWhenStored({ workflowData }, () => {
				held?.report('stored');
				return answer.ack;
			});
		case 'execute':
			return { workflowData, noWebhookResponse: true };
		default:
			return { workflowData };
	}
}
