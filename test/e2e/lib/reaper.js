'use strict';
// Started detached next to every n8n process group: `node reaper.js <parentPid> <groupPid>`.
// When the test process (parent) dies without stopping n8n (jest killed, crash), this kills the
// whole n8n process group (n8n + its task runner). Exits as soon as the group is gone.
const [parentPid, groupPid] = process.argv.slice(2).map(Number);

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

function groupAlive() {
	try {
		process.kill(-groupPid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

const timer = setInterval(() => {
	if (!groupAlive()) {
		clearInterval(timer);
		return;
	}
	if (!alive(parentPid)) {
		try {
			process.kill(-groupPid, 'SIGTERM');
		} catch {}
		setTimeout(() => {
			try {
				process.kill(-groupPid, 'SIGKILL');
			} catch {}
			process.exit(0);
		}, 8000);
		clearInterval(timer);
	}
}, 1000);
