// Mounts the offline verifier on offline.html (a separate file: the page allows no inline script).
globalThis.AgentAuthOffline.mount(document.getElementById('offline'));
