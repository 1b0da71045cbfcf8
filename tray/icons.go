package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"

	"fyne.io/fyne/v2"

	"pathgrant/assets"
)

var (
	iconIdle    = fyne.NewStaticResource("pathgrant.png", assets.Icon)
	iconPending = fyne.NewStaticResource("pathgrant-pending.png", assets.PendingIcon)
	// iconPaused is the app icon in grey: prompts are off for a while, and
	// the tray says so at a glance.
	iconPaused = fyne.NewStaticResource("pathgrant-paused.png", greyed(assets.Icon))
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
