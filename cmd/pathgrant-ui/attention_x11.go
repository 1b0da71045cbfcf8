//go:build linux && !wayland

package main

/*
#cgo LDFLAGS: -lX11
#include <X11/Xlib.h>
#include <X11/Xatom.h>

// quiet_map tells the window manager, before w is mapped, not to give
// it the focus: a user time of 0 means no user action opened it (EWMH).
static void quiet_map(Display *d, Window w) {
	Atom t = XInternAtom(d, "_NET_WM_USER_TIME", False);
	long zero = 0;
	XChangeProperty(d, w, t, XA_CARDINAL, 32, PropModeReplace, (unsigned char *)&zero, 1);
	XFlush(d);
}

// demand_attention asks the window manager to mark w as wanting
// attention (a blinking task bar entry), as EWMH spells it.
static void demand_attention(Display *d, Window w) {
	XEvent e = {0};
	e.xclient.type = ClientMessage;
	e.xclient.window = w;
	e.xclient.message_type = XInternAtom(d, "_NET_WM_STATE", False);
	e.xclient.format = 32;
	e.xclient.data.l[0] = 1; // _NET_WM_STATE_ADD
	e.xclient.data.l[1] = XInternAtom(d, "_NET_WM_STATE_DEMANDS_ATTENTION", False);
	e.xclient.data.l[3] = 1; // from an application
	XSendEvent(d, DefaultRootWindow(d), False, SubstructureNotifyMask | SubstructureRedirectMask, &e);
	XFlush(d);
}

// activate gives w the focus the person asked for (the tray's item, a
// notification's Open: a click in another client): the user time of 0
// that kept it from taking the focus by itself is dropped, and the
// activation is asked as a pager asks it, which a window manager's focus
// stealing prevention lets through.
static void activate(Display *d, Window w) {
	XDeleteProperty(d, w, XInternAtom(d, "_NET_WM_USER_TIME", False));
	XEvent e = {0};
	e.xclient.type = ClientMessage;
	e.xclient.window = w;
	e.xclient.message_type = XInternAtom(d, "_NET_ACTIVE_WINDOW", False);
	e.xclient.format = 32;
	e.xclient.data.l[0] = 2; // from a pager: the person's own action
	e.xclient.data.l[1] = CurrentTime;
	XSendEvent(d, DefaultRootWindow(d), False, SubstructureNotifyMask | SubstructureRedirectMask, &e);
	XFlush(d);
}

// work_area_height is the height of the screen less its panels
// (_NET_WORKAREA of the first desktop), else the screen's; 0 unknown.
static long work_area_height(Display *d) {
	long h = DisplayHeight(d, DefaultScreen(d));
	Atom a = XInternAtom(d, "_NET_WORKAREA", True);
	if (a == None) return h;
	Atom type; int format; unsigned long n, after; unsigned char *data = NULL;
	if (XGetWindowProperty(d, DefaultRootWindow(d), a, 0, 4, False, XA_CARDINAL,
			&type, &format, &n, &after, &data) != Success || data == NULL) return h;
	if (format == 32 && n >= 4 && ((long *)data)[3] > 0) h = ((long *)data)[3];
	XFree(data);
	return h;
}
*/
import "C"

import (
	"unsafe"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// showQuietFirst shows w for the first time without activating it: GLFW
// does not focus it on show (its FOCUS_ON_SHOW, fixed when the native
// window is made, holds for every later show), and the window manager is
// told no user action opened it. UI goroutine (the main thread) only.
func showQuietFirst(w fyne.Window) {
	glfw.WindowHint(glfw.FocusOnShow, glfw.False)
	defer glfw.WindowHint(glfw.FocusOnShow, glfw.True) // every other window as before
	content := w.Content()
	w.SetContent(container.NewStack(newCreatedHook(w, quietMap), content))
	w.Show()
	w.SetContent(content)
}

// quietMap sets w's user time to 0 once its X11 window exists; false
// while it does not.
func quietMap(w fyne.Window) bool {
	return withX11(w, func(d *C.Display, win C.Window) { C.quiet_map(d, win) })
}

// activateWindow gives w the keyboard; false when it has no X11 window.
func activateWindow(w fyne.Window) bool {
	return withX11(w, func(d *C.Display, win C.Window) { C.activate(d, win) })
}

// demandAttention marks w as wanting attention.
func demandAttention(w fyne.Window) {
	withX11(w, func(d *C.Display, win C.Window) { C.demand_attention(d, win) })
}

// workAreaHeight is the work area's height in w's units, 0 when
// unknown.
func workAreaHeight(w fyne.Window) float32 {
	d := (*C.Display)(unsafe.Pointer(glfw.GetX11Display()))
	if d == nil {
		return 0
	}
	px := float32(C.work_area_height(d))
	scale := w.Canvas().Scale()
	if px <= 0 || scale <= 0 {
		return 0
	}
	return px / scale
}

// withX11 calls f with GLFW's own display connection (so that requests
// keep their order with the toolkit's) and w's X11 window; false when
// w has none yet or the toolkit is not on X11.
func withX11(w fyne.Window, f func(*C.Display, C.Window)) bool {
	nw, ok := w.(driver.NativeWindow)
	if !ok {
		return false
	}
	done := false
	nw.RunNative(func(ctx any) {
		x, ok := ctx.(driver.X11WindowContext)
		if !ok || x.WindowHandle == 0 {
			return
		}
		d := (*C.Display)(unsafe.Pointer(glfw.GetX11Display()))
		if d == nil {
			return
		}
		f(d, C.Window(x.WindowHandle))
		done = true
	})
	return done
}
