'use strict';

const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('./cli');
const { tokenResponse, call } = require('./helpers');

const CLI = path.join(__dirname, 'cli.js');

/** Start the CLI; resolves { child, info, output } once the READY line arrived. */
function startCli(args, env = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			env: { ...process.env, ...env },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		const timer = setTimeout(() => reject(new Error(`no READY line; output: ${output}`)), 10000);
		child.stdout.on('data', (chunk) => {
			output += chunk;
			const line = output.split('\n').find((l) => l.startsWith('SBL_SIMULATOR_READY '));
			if (line && output.endsWith('\n')) {
				clearTimeout(timer);
				resolve({ child, output, info: JSON.parse(line.slice('SBL_SIMULATOR_READY '.length)) });
			}
		});
		child.on('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
	});
}

const exitOf = (child) =>
	new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

describe('cli', () => {
	test('prints the demo details and a READY line, serves, and stops on SIGTERM with exit 0', async () => {
		const { child, info, output } = await startCli([
			'--port',
			'0',
			'--token-lifetime',
			'120',
			'--estimate-prefix',
			'/ev',
			'--no-lifecycle',
		]);
		try {
			expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(info.estimateBaseUrl).toBe(`${info.url}/ev`);
			expect(info.close).toBeUndefined();
			for (const c of Object.values(info.clients)) {
				expect(output).toContain(c.clientId);
				expect(output).toContain(c.clientSecret);
			}
			expect(output).toContain(info.signingSecret);
			expect(output).toContain('x-acme-sbl-signature');
			const { body } = await tokenResponse(info, 'consent');
			expect(body.expires_in).toBe(120);
			expect((await call(`${info.url}/__sim/config`)).body.config.autoLifecycle).toBe(false);
			expect(
				(await call(`${info.estimateBaseUrl}/RealEstates/0301/12/34/0/0/MarketEstimate`)).status,
			).toBe(200);
		} finally {
			const exited = exitOf(child);
			child.kill('SIGTERM');
			expect(await exited).toEqual({ code: 0, signal: null });
		}
	});

	test('environment fallbacks and SIGINT', async () => {
		const { child, info } = await startCli([], {
			SBL_SIM_PORT: '0',
			SBL_SIM_HOST: '127.0.0.1',
			SBL_SIM_TOKEN_LIFETIME: '77',
		});
		const { body } = await tokenResponse(info, 'estimate');
		expect(body.expires_in).toBe(77);
		const exited = exitOf(child);
		child.kill('SIGINT');
		expect(await exited).toEqual({ code: 0, signal: null });
	});

	test('parseArgs: flags, = form, env and validation', () => {
		expect(parseArgs(['--port=8123', '--host', '0.0.0.0', '--no-lifecycle', '--log'], {})).toEqual({
			port: 8123,
			host: '0.0.0.0',
			autoLifecycle: false,
			log: true,
		});
		expect(
			parseArgs(['--token-lifetime', '5'], { SBL_SIM_TOKEN_LIFETIME: '9', SBL_SIM_PORT: '7000' }),
		).toEqual({ port: 7000, tokenLifetimeSeconds: 5 });
		expect(parseArgs(['--webhook-retries', '8'], {})).toEqual({ webhookRetries: 8 });
		for (const bad of ['-1', '1.5', '21', 'x'])
			expect(() => parseArgs(['--webhook-retries', bad], {})).toThrow(/webhookRetries/);
		expect(() => parseArgs(['--port', 'x'], {})).toThrow(/port/);
		expect(() => parseArgs(['--token-lifetime', '0'], {})).toThrow(/tokenLifetimeSeconds/);
		expect(() => parseArgs(['--bogus'], {})).toThrow(/unknown argument/);
	});
});
