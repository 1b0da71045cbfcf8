package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"

	"fyne.io/fyne/v2"

	"pathgrant/assets"
)

var (
	iconIdle    = fyne.NewStaticResource("pathgrant.png", assets.Icon)
	iconPending = fyne.NewStaticResource("pathgrant-pending.png", assets.PendingIcon)
	// iconPaused is the app icon in grey: prompts are off for a while, and
	// the tray says so at a glance.
	iconPaused = fyne.NewStaticResource("pathgrant-paused.png", greyed(assets.Icon))
	// iconQuit is the power sign beside Quit, and more than a picture:
	// Fyne's tray adds a plain item to the D-Bus menu without announcing
	// it (only a separator, a disabled item or an icon makes it tell the
	// host that the layout changed), and Quit is always the last item
	// added. Without an icon, a host that read the menu while it was
	// being built (xfce4-panel does, at the first change it hears of)
	// kept it without Quit. Setting the icon announces the finished menu.
	iconQuit = fyne.NewStaticResource("pathgrant-quit.png", powerSign(32))
)

// iconFor is the tray icon: paused wins, since then nothing is offered
// however many requests wait.
func iconFor(pending int, paused bool) fyne.Resource {
	switch {
	case paused:
		return iconPaused
	case pending > 0:
		return iconPending
	}
	return iconIdle
}

// greyed returns the PNG pngData in grey, lighter and half transparent,
// keeping its shape. A PNG that does not decode is returned as is: an
// icon that is not grey beats none.
func greyed(pngData []byte) []byte {
	src, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return pngData
	}
	b := src.Bounds()
	dst := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(src.At(x, y)).(color.NRGBA)
			lum := uint8((299*uint32(c.R) + 587*uint32(c.G) + 114*uint32(c.B)) / 1000)
			g := lum/2 + 96 // lighter, with less contrast
			dst.SetNRGBA(x, y, color.NRGBA{R: g, G: g, B: g, A: c.A / 2})
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return pngData
	}
	return out.Bytes()
}

// powerSign draws the power symbol (a ring open at the top, a bar through
// the gap) in mid grey on a transparent square of side size, legible on a
// light or a dark menu.
func powerSign(size int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	grey := color.NRGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff}
	c := float64(size) / 2
	outer, inner := c*0.8, c*0.8-float64(size)/10
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			r := math.Hypot(dx, dy)
			angle := math.Atan2(dx, -dy) // 0 straight up
			ring := r <= outer && r >= inner && math.Abs(angle) > math.Pi/5
			bar := math.Abs(dx) <= float64(size)/20 && dy <= 0 && -dy <= outer
			if ring || bar {
				img.SetNRGBA(x, y, grey)
			}
		}
	}
	var out bytes.Buffer
	_ = png.Encode(&out, img) // encoding an in-memory NRGBA cannot fail
	return out.Bytes()
}
