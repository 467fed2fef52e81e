/** Carries out decide.ts's answer: the only code that writes to a delivery's HTTP response. */
import type { INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { answerWhenStored } from '../n8n-compat';
import type { Answer } from './decide';
import type { ResponseLike } from './verify';

/** The delivery memory's side of an answer (dedupe.ts): told when it was stored and when it settled. */
export interface Held {
	stored(): void;
	settled(answered: boolean): void;
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
	if (held) {
		res.once?.('close', () => {
			const code = res.statusCode ?? 0;
			held.settled(res.writableFinished === true && code >= 200 && code < 300);
		});
	}
	const workflowData = [run.items];
	switch (answer.plan.answeredBy) {
		case 'n8n-when-stored':
			return answerWhenStored({ workflowData }, () => {
				held?.stored();
				return answer.ack;
			});
		case 'execute':
			return { workflowData, noWebhookResponse: true };
		default:
			return { workflowData };
	}
}
