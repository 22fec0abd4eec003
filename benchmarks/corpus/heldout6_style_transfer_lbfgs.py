# corpus: neural style transfer: the input image is optimized (not a model) with LBFGS and a closure, run = [0] counter, clamp_ under no_grad
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)).eval()
for p in features.parameters():
    p.requires_grad_(False)
content_img = torch.rand(1, 3, 16, 16)
style_img = torch.rand(1, 3, 16, 16)


def gram_matrix(x):
    a, b, c, d = x.size()
    f = x.view(a * b, c * d)
    return torch.mm(f, f.t()).div(a * b * c * d)


target_content = features(content_img).detach()
target_gram = gram_matrix(features(style_img)).detach()
input_img = content_img.clone().requires_grad_(True)
optimizer = torch.optim.LBFGS([input_img])
run = [0]
while run[0] <= 40:
    def closure():
        with torch.no_grad():
            input_img.clamp_(0, 1)
        optimizer.zero_grad()
        out = features(input_img)
        style_score = 1e4 * F.mse_loss(gram_matrix(out), target_gram)
        content_score = F.mse_loss(out, target_content)
        loss = style_score + content_score
        loss.backward()
        run[0] += 1
        if run[0] % 10 == 0:
            print(f"run {run[0]}: style {style_score.item():.4f} content {content_score.item():.4f}")
        return style_score + content_score
    optimizer.step(closure)
with torch.no_grad():
    input_img.clamp_(0, 1)
print("done", input_img.mean().item())
