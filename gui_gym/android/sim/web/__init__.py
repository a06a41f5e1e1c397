"""Web content on the phone: a real headless Chromium (:mod:`.chromium`) whose pages an app's
WebView shows, with the page's elements in the dump as Android's WebView exposes them
(:mod:`.webview`)."""
