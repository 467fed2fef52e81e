#!/usr/bin/env node
'use strict';

// node test/simulator/cli.js [--port N] [--host H] [--token-lifetime S] [--estimate-prefix P] [--no-lifecycle]
//                            [--signing-secret S] [--webhook-delay MS] [--webhook-retries N] [--log]
// Env fallbacks: SBL_SIM_PORT, SBL_SIM_HOST, SBL_SIM_TOKEN_LIFETIME. Port 0 = any free port.
// Prints human-readable lines, then one line "SBL_SIMULATOR_READY <json>" for scripts.

const { startSimulator } = require('./index');

const USAGE = `Usage: node test/simulator/cli.js [options]
  --port N              port to listen on (0 = any free port; env SBL_SIM_PORT; default 0)
  --host H              address to bind (env SBL_SIM_HOST; default 127.0.0.1)
  --token-lifetime S    access token lifetime in seconds (env SBL_SIM_TOKEN_LIFETIME; default 3600)
  --estimate-prefix P   path prefix of the estimate API (default /estimate/v1)
  --no-lifecycle        do not send lifecycle webhooks automatically after a flow is created
  --signing-secret S    webhook signing secret (default: the fixed demo secret)
  --webhook-delay MS    delay between lifecycle webhooks (default 20)
  --webhook-retries N   send a lifecycle/delete event not answered 2xx again, up to N times (default 0)
  --log                 log every request to stdout
  --help                show this text`;

function parseArgs(argv, env) {
	const options = {};
	if (env.SBL_SIM_PORT !== undefined && env.SBL_SIM_PORT !== '') options.port = env.SBL_SIM_PORT;
	if (env.SBL_SIM_HOST) options.host = env.SBL_SIM_HOST;
	if (env.SBL_SIM_TOKEN_LIFETIME) options.tokenLifetimeSeconds = env.SBL_SIM_TOKEN_LIFETIME;
	const valued = {
		'--port': 'port',
		'--host': 'host',
		'--token-lifetime': 'tokenLifetimeSeconds',
		'--estimate-prefix': 'estimatePrefix',
		'--signing-secret': 'signingSecret',
		'--webhook-delay': 'webhookDelayMs',
		'--webhook-retries': 'webhookRetries',
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const eq = arg.indexOf('=');
		const name = eq > 0 ? arg.slice(0, eq) : arg;
		if (valued[name]) {
			const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
			if (value === undefined) throw new Error(`${name} needs a value`);
			options[valued[name]] = value;
		} else if (arg === '--no-lifecycle') options.autoLifecycle = false;
		else if (arg === '--log') options.log = true;
		else if (arg === '--help' || arg === '-h') options.help = true;
		else throw new Error(`unknown argument ${arg}`);
	}
	for (const key of ['port', 'tokenLifetimeSeconds', 'webhookDelayMs', 'webhookRetries']) {
		if (options[key] === undefined) continue;
		const n = Number(options[key]);
		const ok =
			key === 'webhookDelayMs'
				? n >= 0
				: key === 'port'
					? Number.isInteger(n) && n >= 0 && n <= 65535
					: key === 'webhookRetries'
						? Number.isInteger(n) && n >= 0 && n <= 20
						: Number.isInteger(n) && n >= 1;
		if (!ok) throw new Error(`invalid value for ${key}: ${options[key]}`);
		options[key] = n;
	}
	return options;
}

async function main() {
	let options;
	try {
		options = parseArgs(process.argv.slice(2), process.env);
	} catch (error) {
		process.stderr.write(`${error.message}\n${USAGE}\n`);
		process.exit(2);
	}
	if (options.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const sim = await startSimulator(options);
	const { close, ...info } = sim;
	const lines = [
		`SBL simulator listening on ${info.url}`,
		`  identity provider  ${info.authUrl}  (token: ${info.authUrl}/realms/<realm>/protocol/openid-connect/token)`,
		`  realms             ${Object.keys(info.realms).join(', ')}`,
		`  consent API        ${info.consentBaseUrl}  (POST ${info.consentBaseUrl}/api/flow-definitions/sbl)`,
		`  estimate API       ${info.estimateBaseUrl}`,
		`  control API        ${info.controlUrl}`,
		'  demo clients:',
		...Object.entries(info.clients).map(
			([name, c]) =>
				`    ${name.padEnd(16)} id=${c.clientId}  secret=${c.clientSecret}  realm=${c.realms.join('|')}  scopes=${c.defaultScopes.join(' ') || '(none)'}`,
		),
		`  webhook signing secret  ${info.signingSecret}`,
		`  signature header        ${info.signatureHeader}`,
		`  lifecycle webhooks      ${options.autoLifecycle === false ? 'off' : 'on'}`,
		`SBL_SIMULATOR_READY ${JSON.stringify(info)}`,
	];
	process.stdout.write(`${lines.join('\n')}\n`);

	let stopping = false;
	const stop = (signal) => {
		if (stopping) process.exit(1);
		stopping = true;
		process.stdout.write(`SBL simulator stopping (${signal})\n`);
		const force = setTimeout(() => process.exit(0), 3000);
		force.unref();
		close().then(() => process.exit(0));
	};
	process.on('SIGTERM', () => stop('SIGTERM'));
	process.on('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(`SBL simulator failed to start: ${error.message}\n`);
		process.exit(1);
	});
}

module.exports = { parseArgs };
